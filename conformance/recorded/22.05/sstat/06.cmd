run
sstat -j $J.0
