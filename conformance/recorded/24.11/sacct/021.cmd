run capture=Y
sbatch --parsable -J cancel_pend -H --wrap true
