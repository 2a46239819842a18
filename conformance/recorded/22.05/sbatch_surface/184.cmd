run
sbatch -h
