run
salloc -N1 -n2 sh -c 'srun -n2 --overlap sh -c "touch o1.\$SLURM_PROCID; until [ -e o2 ]; do sleep 0.1; done" & until [ -e o1.0 -a -e o1.1 ]; do sleep 0.1; done; srun -n1 --overlap sh -c "echo \$SLURM_STEP_ID; touch o2"; wait $!; echo rc=$?' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
