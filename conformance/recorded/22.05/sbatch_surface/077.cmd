run
SBATCH_MEM_PER_GPU=100 sbatch --hold --wrap true
