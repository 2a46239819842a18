run
sbatch --mem=abc --wrap true
