run
scancel --wckey=nosuch
