run
scancel -R nosuch
