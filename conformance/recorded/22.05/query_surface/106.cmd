run
sinfo -V
