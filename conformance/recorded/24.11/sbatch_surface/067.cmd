run
scontrol show job $E7 | grep -E '(^| )(CpuFreq[A-Za-z]*|MinCPUsNode|NumCPUs)='
