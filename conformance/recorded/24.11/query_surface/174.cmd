run
scancel -Q 99999
