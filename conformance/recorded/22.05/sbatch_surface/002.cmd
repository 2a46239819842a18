run
sbatch --verbose --hold -N 2 -n 3 --mem=100 -o v2-%j.out --wrap true
