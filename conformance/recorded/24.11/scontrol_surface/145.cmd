run
scontrol update jobid=$J1 partition=debug
