run
sinfo -t alloc
