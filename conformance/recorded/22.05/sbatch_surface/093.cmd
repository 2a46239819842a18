run
SBATCH_DELAY_BOOT=abc sbatch --hold --wrap true
