run
scancel -t RUNNING -u nobody
