run
sbatch -V
