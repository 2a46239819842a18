run
scancel $J8
