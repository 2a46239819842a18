run capture=O12
sbatch --parsable --hold -k --overcommit -n 6 --wrap true
