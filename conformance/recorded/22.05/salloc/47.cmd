run
SALLOC_PARTITION=debug salloc sh -c 'echo $SLURM_JOB_PARTITION' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
