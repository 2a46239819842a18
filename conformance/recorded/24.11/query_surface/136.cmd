run
scancel
