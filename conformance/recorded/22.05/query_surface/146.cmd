run
scancel -q nosuch
