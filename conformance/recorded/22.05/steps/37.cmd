run
scancel $J.99
