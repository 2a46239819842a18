run
scancel -v ${J4}_[2-3]
