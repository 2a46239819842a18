run
scancel $BL
