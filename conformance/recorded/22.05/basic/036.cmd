run
sinfo -N -l
