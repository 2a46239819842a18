run
sacct -j $U --units=M -o JobID,MaxRSS,ReqMem
