run
salloc -N1 -n2 sh -c 'srun -n1 sh -c "touch bg.started; exec sleep 300" 2> bg.err & until [ -e bg.started ]; do sleep 0.2; done; squeue -s -j $SLURM_JOB_ID -o "%i %j %N %A"; scancel $SLURM_JOB_ID.0; wait $!; echo "srun rc=$?"; sort bg.err' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
