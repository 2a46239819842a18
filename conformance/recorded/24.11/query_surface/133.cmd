run
scancel --version
