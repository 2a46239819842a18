run
sbatch pbs6.sh
