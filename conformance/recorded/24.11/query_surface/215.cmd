run
scancel -v $J1
