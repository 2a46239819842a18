run
sstat -j $F
