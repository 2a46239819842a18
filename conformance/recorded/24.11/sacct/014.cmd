run capture=H
sbatch --parsable -J held_job -H --wrap true
