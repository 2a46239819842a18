run
scancel --usage
