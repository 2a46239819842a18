run as=spurtest
scancel -u root 2>&1 | sort
