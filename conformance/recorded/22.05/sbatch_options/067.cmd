run capture=V3
SBATCH_MEM_PER_CPU=400 SBATCH_EXCLUSIVE=user sbatch --parsable --hold --wrap true
