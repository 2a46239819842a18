run
sbatch --hold --resv-ports=2 --wrap true
