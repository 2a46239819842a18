run
scancel -u spurtest
