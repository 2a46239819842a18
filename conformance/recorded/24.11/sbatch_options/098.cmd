run capture=C1
sbatch --parsable --chdir=sub --wrap 'pwd'
