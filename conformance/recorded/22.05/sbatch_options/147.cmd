run
scancel $T1 $T2
