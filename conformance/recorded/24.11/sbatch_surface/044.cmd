run capture=P10
sbatch --parsable pbs8.sh
