run
scontrol update jobid=$J2 mintmpdisknode=100
