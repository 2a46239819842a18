run as=spurtest
scancel $J1
