run
scancel -t bogus
