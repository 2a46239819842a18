run
scontrol show job $E10 | grep -E '(^| )(StdIn|StdOut|StdErr)='
