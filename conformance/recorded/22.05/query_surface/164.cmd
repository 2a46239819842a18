run
scancel -i -n nosuch
