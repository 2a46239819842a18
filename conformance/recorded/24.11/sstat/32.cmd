run
sstat
