run
sstat -j 999999
