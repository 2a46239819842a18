run
SQUEUE_ARRAY=1 squeue -h -o '%i %j'
