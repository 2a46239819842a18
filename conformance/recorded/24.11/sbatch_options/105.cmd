run
sbatch --chdir=/nonexistent/dir --wrap true
