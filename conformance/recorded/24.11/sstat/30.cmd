run
sstat -j $J.7
