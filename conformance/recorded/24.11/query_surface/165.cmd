run
scancel --interactive -n nosuch -v
