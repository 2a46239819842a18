run
scontrol show job $B1 | grep -E '(^| )(JobName|TimeLimit|NumNodes|MinMemoryCPU)='
