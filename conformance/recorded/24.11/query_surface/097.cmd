run
sinfo --local
