run
sacct -j $U --units=G -o JobID,MaxRSS,ReqMem
