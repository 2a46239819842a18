run
SLURM_CLUSTERS=nosuch sbatch --hold --wrap true
