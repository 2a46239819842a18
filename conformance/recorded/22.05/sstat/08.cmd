run
sstat -j $J.batch
