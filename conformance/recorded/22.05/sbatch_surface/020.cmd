run capture=P3
sbatch --parsable -J fromcli pbs2.sh
