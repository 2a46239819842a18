run capture=J8 as=spurtest
sbatch --parsable -J eta --hold --wrap 'sleep 300'
