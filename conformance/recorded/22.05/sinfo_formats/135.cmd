run
sinfo -p debug -N -l
