run
sinfo -t drain
