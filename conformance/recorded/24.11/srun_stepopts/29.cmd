run
srun -n2 -t 1 --signal=R:USR2@58 bash -c 'trap "echo got USR2 $SLURM_PROCID; exit 0" USR2; sleep 200 & wait' | sort
