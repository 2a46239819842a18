run
SLURM_JOB_NAME=fromenv salloc sh -c 'echo $SLURM_JOB_NAME' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
