run
sstat -j $F.batch
