run
sinfo -M nosuch
