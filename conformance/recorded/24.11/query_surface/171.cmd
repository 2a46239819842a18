run
scancel -n gamma -u spurtest
