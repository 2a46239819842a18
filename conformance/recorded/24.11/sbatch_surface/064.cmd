run
SBATCH_WAIT=1 sbatch --wrap 'exit 3'
