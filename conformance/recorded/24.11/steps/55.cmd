run
salloc -N1 -n2 sh -c 'for c in true false true; do srun -n1 $c; r=$?; while squeue -h -s -j $SLURM_JOB_ID -o %i | grep -q .; do sleep 0.1; done; echo "$c rc=$r"; done; scontrol show step $SLURM_JOB_ID.1' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
