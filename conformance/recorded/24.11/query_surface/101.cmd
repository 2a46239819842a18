run
sinfo -M all -h
