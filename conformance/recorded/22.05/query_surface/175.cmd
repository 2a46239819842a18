run
scancel -v 99999
