run
SLURM_HINT=bogus sbatch --hold --wrap true
