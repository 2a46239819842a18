run
scancel -u root
