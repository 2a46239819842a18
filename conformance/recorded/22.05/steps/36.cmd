run as=spurtest
scancel $J.2
