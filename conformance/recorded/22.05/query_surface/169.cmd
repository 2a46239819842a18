run
scancel -s USR1 -n nosuch
