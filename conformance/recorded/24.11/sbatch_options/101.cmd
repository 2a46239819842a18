run
scontrol show job $C1 | grep -E '(^| )(WorkDir|StdOut)='
