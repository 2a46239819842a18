run capture=J5 as=spurtest
sbatch --parsable -J delta --hold --wrap 'sleep 300'
