run capture=A
sbatch --parsable -J arr_job --array=0-3 --wrap 'exit $(( SLURM_ARRAY_TASK_ID == 2 ? 5 : 0 ))'
