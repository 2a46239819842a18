run capture=E7
SBATCH_MEM_BIND=local SBATCH_CPU_FREQ_REQ=Performance SBATCH_HINT=nomultithread SBATCH_DISTRIBUTION=cyclic SBATCH_GRES_FLAGS=enforce-binding sbatch --parsable --hold --wrap true
