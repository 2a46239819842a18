run
scontrol update jobid=$J2 stdout=/tmp/spur-conf-work/x.out
