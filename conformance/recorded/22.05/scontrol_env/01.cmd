run capture=J
sbatch --parsable -J envjob --hold --wrap 'sleep 300'
