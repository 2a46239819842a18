run
scontrol update jobid=$J1 name=run1b comment=c1
