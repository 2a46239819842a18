run
SBATCH_CLUSTERS=nosuch sbatch --hold --wrap true
