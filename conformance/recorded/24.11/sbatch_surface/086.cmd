run
scontrol show job $E11 | grep -E '(^| )StdOut='
