run
scancel -v
