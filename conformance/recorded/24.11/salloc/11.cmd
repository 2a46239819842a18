run
salloc -N2 -n3 sh -c 'echo $SLURM_JOB_ID $SLURM_NNODES $SLURM_NTASKS $SLURM_JOB_NODELIST $SLURM_TASKS_PER_NODE' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
