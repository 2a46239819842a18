run
sbatch -vvv pbs7.sh
