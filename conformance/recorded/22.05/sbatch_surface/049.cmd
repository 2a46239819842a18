run
SBATCH_QOS=nosuch sbatch --hold --wrap true
