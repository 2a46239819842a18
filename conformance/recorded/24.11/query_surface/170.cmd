run
scancel --signal=TERM -n nosuch -v
