run
scancel $K
