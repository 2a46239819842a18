run
sacct -j $U -o JobID,JobName,NTasks,MaxRSS,AveRSS,MaxVMSize,MaxRSSNode,MaxRSSTask,AveCPU,TotalCPU,MinCPU,MaxDiskRead,MaxDiskWrite
