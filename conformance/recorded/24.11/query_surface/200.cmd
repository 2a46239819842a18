run as=spurtest
scancel -n alpha
