run
sbatch --mem=3000 --wrap true
