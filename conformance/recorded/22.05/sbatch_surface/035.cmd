run
sbatch pbs9.sh
