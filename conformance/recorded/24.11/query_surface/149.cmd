run
scancel -w node4
