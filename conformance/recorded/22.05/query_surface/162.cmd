run
scancel -c -n nosuch
