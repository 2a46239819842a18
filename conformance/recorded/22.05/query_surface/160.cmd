run
scancel -H -n nosuch
