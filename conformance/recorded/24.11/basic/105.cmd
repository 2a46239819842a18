run
scancel --batch --signal=USR1 $J8
