run
SLURM_EXIT_ERROR=7 sbatch -p nosuch --wrap true
