run
scancel -v -n gamma
