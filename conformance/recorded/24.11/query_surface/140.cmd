run
scancel -M nosuch $J3
