run
SBATCH_TIMELIMIT=abc sbatch --wrap true
