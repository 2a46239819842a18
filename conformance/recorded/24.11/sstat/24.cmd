run capture=P
sbatch --parsable -H -J held --wrap true
