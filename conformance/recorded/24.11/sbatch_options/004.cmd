run
sbatch --quiet --parsable -o quiet2-%j.out --wrap true
