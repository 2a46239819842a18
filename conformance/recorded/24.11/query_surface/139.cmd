run
scancel -u nosuchuser
