run capture=R
sbatch --parsable -J run_job -w node2 --wrap 'srun -J sleeper sleep 600'
