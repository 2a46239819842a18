run
sinfo --responding -N -h
