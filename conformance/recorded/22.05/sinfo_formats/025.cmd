run
sinfo --noheader -N -l
