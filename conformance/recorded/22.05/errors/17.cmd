run
sbatch --array=abc --wrap true
