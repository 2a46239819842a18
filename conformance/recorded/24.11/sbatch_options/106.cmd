run capture=C3
sbatch --parsable -o app.out --open-mode=append --wrap 'echo first'
