run
scancel $J1 $J2
