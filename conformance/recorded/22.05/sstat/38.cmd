run
sstat -V
