run
sstat -j $J -o NoSuchField
