run
scontrol update jobid=$J2 workdir=/tmp
