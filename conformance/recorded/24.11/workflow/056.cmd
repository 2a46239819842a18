run
scancel --name=nosuch
