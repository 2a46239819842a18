run
scancel -p nosuch
