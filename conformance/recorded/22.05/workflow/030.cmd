run
scancel 999999
