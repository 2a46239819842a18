run
SBATCH_CPUS_PER_GPU=1 sbatch --hold --wrap true
