run
scancel -s KILL -v $J2
