run
salloc -J myalloc -t 5 sh -c 'squeue -h -j $SLURM_JOB_ID -o "%j %l %T %D"' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
