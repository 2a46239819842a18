run
scancel $B
