run
salloc -w node3 sh -c 'echo $SLURM_JOB_NODELIST' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
