run
scontrol update jobid=$J2 numcpus=4
