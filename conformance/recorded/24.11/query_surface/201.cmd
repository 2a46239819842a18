run as=spurtest
scancel -n alpha -u root
