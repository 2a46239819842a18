run
salloc -N1 -n2 sh -c 'srun -n1 --exact sh -c "touch e1; until [ -e e2 ]; do sleep 0.1; done" & until [ -e e1 ]; do sleep 0.1; done; srun -n1 --exact sh -c "echo \$SLURM_STEP_ID; touch e2"; wait $!; echo rc=$?' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
