run
scontrol update jobid=$J2 wckey=abc
