run
scancel -b -n nosuch
