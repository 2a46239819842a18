run
scancel --account=nosuch -v
