run
sacct -j $U --noconvert -o JobID,MaxRSS,ReqMem
