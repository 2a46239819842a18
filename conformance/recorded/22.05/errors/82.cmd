run capture=X2
sbatch --parsable -o sig-%j.out --wrap 'kill -9 $$'
