run
SBATCH_CPU_FREQ_REQ=bogus sbatch --hold --wrap true
