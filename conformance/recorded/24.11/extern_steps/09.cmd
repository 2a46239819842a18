run
scancel $J.extern
