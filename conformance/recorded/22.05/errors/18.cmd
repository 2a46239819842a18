run capture=A1
sbatch --array=1-3%abc --wrap true
