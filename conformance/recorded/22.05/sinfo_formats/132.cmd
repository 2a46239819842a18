run
sinfo --states=allocated -N
