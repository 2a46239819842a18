run
SLURM_TASK_PROLOG=$PWD/tp.sh srun -n1 printenv TP_VAR
