run
SALLOC_EXCLUSIVE=1 salloc sh -c 'echo $SLURM_JOB_CPUS_PER_NODE' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
