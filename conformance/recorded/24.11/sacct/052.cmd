run
sacct -j $U --units=K -o JobID,MaxRSS,ReqMem
