run as=spurtest
scancel $U1
