run
scancel --full -n nosuch -v
