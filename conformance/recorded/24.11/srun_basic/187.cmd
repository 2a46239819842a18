run
scancel $J
