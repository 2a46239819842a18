run
scontrol update jobid=$J2 bogus=1
