run
SALLOC_TIMELIMIT=3 salloc sh -c 'squeue -h -j $SLURM_JOB_ID -o "%l"' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
