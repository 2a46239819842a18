run
(salloc -N1 sh -c 'echo inside $SLURM_JOB_ID' > p.out 2> p.err; echo $? > p.rc) </dev/null >/dev/null 2>&1 &
