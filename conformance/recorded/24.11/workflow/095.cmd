run capture=R1
sbatch --parsable --array=0-2 -J arr -o arr-%A_%a.out --wrap 'echo task $SLURM_ARRAY_TASK_ID'
