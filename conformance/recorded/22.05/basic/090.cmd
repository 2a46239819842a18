run
scancel -n myname
