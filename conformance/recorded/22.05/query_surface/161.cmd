run
scancel --hurry -n nosuch -v
