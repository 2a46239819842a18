run capture=J
sbatch --parsable -J sstat_job --wrap 'srun -J sleeper sleep 120'
