run as=spurtest
srun --jobid=$J --overlap true
