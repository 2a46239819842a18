run as=spurtest
scancel -u spurtest
