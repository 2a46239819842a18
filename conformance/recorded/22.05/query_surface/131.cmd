run
scancel --help
