run
sinfo -t idle,mix
