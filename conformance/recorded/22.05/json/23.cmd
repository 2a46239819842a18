run capture=J3
sbatch --parsable -J gamma -o gamma.out --wrap 'exit 3'
