run
squeue -h -j $E2 -o '%i %a'
