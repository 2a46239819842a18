run capture=C4
sbatch --parsable -o app.out --open-mode=append --wrap 'echo second'
