run
scancel $J.2
