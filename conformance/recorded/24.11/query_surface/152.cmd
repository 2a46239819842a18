run
scancel --name=nosuch -v
