run
sinfo --dead -N
