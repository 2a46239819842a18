run
scancel -i $J3
