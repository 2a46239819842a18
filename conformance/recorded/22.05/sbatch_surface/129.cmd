run
sbatch --hold --acctg-freq=bogus=1 --wrap true
