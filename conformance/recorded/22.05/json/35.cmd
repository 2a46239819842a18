run
scancel $J4 $J5
