run
sinfo --sort=P
