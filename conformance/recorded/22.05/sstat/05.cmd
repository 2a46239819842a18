run
sstat -j $J
