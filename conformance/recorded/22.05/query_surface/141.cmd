run
scancel -M spur -n nosuch
