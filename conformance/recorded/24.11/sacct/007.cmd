run capture=C
sbatch --parsable -J ok_job --wrap 'echo done'
