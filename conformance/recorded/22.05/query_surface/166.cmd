run
scancel -Q -n nosuch
