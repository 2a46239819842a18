run capture=S6
sbatch --parsable -J six -o six-%j.out --wrap 'echo six'
