run
sbatch
