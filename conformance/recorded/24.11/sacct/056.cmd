run
sacct -j $U -P -o JobID,MaxRSS,Elapsed,TotalCPU,CPUTime,CPUTimeRAW,ElapsedRaw
