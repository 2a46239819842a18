run
sinfo -t fail
