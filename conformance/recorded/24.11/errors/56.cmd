run as=spurtest compare=rc
scancel -u root
