run
sbatch -v pbs8.sh
