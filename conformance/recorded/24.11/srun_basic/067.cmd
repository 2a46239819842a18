run
srun -n2 -o all-%j.txt sh -c 'echo task $SLURM_PROCID' | sort
