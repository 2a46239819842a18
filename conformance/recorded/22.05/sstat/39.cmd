run
scancel $P $J
