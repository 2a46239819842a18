run
scancel $X
