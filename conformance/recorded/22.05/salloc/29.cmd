run as=spurtest
salloc -N1 sh -c 'id -un; echo $SLURM_JOB_USER $HOME; pwd' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
