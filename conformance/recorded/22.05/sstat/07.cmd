run
sstat -a -j $J
