run
sstat --noconvert -j $J.0 -o JobID,MaxRSS,MaxVMSize
