run capture=J3
sbatch --parsable -J gamma --hold --wrap 'sleep 300'
