run
sbatch --hold --acctg-freq=task=60 --wrap true
