run
scontrol update jobid=$J2 dependency=afterok:$J1
