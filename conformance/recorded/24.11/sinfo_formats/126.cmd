run
sinfo -t mix
