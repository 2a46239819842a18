run
scancel -s
