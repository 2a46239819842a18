run
scontrol show job $O6 | grep -E '(^| )CpuFreq'
