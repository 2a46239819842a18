run capture=P9
sbatch --parsable pbs7.sh
