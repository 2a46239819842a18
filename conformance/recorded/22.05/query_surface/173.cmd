run
scancel 99999
