run
(srun --jobid=$J -n1 printenv SLURM_STEP_ID > blocked.out 2> blocked.err; echo $? > blocked.rc) </dev/null >/dev/null 2>&1 &
