run
scancel $H2
