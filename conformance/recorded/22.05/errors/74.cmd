run
sbatch --wait --wrap 'exit 3'
