run
scontrol show job $G1 | grep -E '(^| )(Command|JobName|WorkDir|StdOut)='
