run
scancel $W1
