run
sbatch --hold --bbf=/nonexistent --wrap true
