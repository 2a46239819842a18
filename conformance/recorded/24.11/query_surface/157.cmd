run
scancel --batch -n nosuch -v
