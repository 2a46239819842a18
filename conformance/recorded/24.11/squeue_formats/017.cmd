run as=spurtest
scancel $J8
