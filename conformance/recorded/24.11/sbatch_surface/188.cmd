run capture=S1
sbatch --parsable --hold verb.sh -t 99 --hold -J notanoption
