run
scancel 99999 -n gamma
