run capture=C5
sbatch --parsable -o app.out --wrap 'echo third'
