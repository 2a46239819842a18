run
sbatch pbs5.sh
