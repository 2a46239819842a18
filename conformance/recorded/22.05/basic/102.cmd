run
scancel --signal=USR1 $J8
