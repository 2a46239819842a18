run
scancel -f -n nosuch
