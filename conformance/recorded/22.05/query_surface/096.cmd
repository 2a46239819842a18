run
sinfo --federation
