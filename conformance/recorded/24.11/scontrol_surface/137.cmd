run
scontrol update jobid=$J2 reboot=yes
