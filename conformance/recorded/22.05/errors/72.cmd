run
scancel $R1
