run
scancel $N4 $N5
