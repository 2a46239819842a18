run
scancel $J1
