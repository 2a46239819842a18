run
sstat -j $P
