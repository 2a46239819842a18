run
sinfo -t drain,down -N
