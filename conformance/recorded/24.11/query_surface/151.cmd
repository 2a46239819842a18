run
scancel -n nosuch
