run capture=E8
SBATCH_MEM_PER_NODE=300 sbatch --parsable --hold --wrap true
