run
squeue --json -j $J2
