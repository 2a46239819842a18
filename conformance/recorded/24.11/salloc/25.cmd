run
salloc -t 1-0 --mem=300 -c2 sh -c 'squeue -h -j $SLURM_JOB_ID -o "%l %m %C"; echo $SLURM_MEM_PER_NODE $SLURM_CPUS_PER_TASK' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
