run
sinfo -N -S t
