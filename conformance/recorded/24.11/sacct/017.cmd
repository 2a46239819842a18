run capture=X
sbatch --parsable -J cancel_run --wrap 'sleep 600'
