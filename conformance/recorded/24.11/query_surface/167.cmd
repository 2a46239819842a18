run
scancel --quiet -n nosuch -v
