run
sstat -j $J -o jobid%20,ntasks%-8,maxrss
