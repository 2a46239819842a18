run capture=J6
sbatch --parsable -J zeta -o zeta.out --wrap 'exit 2'
