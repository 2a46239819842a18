run
scancel $B $J2 $J3 $J4
