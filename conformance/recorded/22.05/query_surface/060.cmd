run
squeue -r -h -o '%i %K'
