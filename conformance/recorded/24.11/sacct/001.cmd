run capture=T
sbatch --parsable -J to_job --time=1 -w node1 --wrap 'sleep 600'
