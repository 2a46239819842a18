run as=spurtest
scancel -v $J1
