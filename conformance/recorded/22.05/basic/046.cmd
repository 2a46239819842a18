run
sinfo -t idle
