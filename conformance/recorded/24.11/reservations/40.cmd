run
scancel $J2
