run
sstat -a -j $J -o JobID,NTasks,MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MinCPUNode,ReqCPUFreqGov
