run
sinfo --future -N -h
