run
sbatch --time=abc --wrap true
