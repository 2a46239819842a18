run
sbatch --hold -C nosuchfeature --wrap true
