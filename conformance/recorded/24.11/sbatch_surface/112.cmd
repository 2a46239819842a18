run
scontrol show job $O5 | grep -E '(^| )CpuFreq'
