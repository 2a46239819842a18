run capture=P6
sbatch --parsable --ignore-pbs pbs2.sh
