run capture=O5
sbatch --parsable --hold --cpu-freq=2000000 --wrap true
