run capture=X3
sbatch --parsable -o nocmd-%j.out --wrap 'no-such-command-xyz'
