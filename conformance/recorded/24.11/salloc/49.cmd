run
SALLOC_MEM_PER_CPU=200 salloc sh -c 'echo $SLURM_MEM_PER_CPU' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
