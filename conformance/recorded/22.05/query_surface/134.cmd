run
scancel -V
