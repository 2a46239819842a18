run
FOO=bar salloc --export=NONE sh -c 'echo ${FOO-unset}; env | grep -c ^SLURM_JOB_ID'
