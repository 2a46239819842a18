run
SLURM_EXIT_ERROR=7 sbatch --bogus-option
