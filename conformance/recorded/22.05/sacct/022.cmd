run
scancel $Y
