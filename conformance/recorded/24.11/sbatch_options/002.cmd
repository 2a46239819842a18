run
sbatch --parsable -o parsable-%j.out --wrap 'echo parsable'
