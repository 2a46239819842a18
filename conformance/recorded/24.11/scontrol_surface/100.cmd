run
scontrol update jobid=$J2 oversubscribe=yes
