run as=spurtest
scancel $R1
