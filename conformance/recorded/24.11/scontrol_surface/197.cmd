run
scancel $J2 $J3 $J4
