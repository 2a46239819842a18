run
scancel -A nosuch
