run
scancel --bogus
