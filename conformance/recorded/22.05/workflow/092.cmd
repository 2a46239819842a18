run
scancel $F3 $F6
