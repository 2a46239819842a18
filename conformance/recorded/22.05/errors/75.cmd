run capture=X1
sbatch --parsable -o exit3-%j.out --wrap 'echo before; exit 3'
