run
sbatch -v --hold -c 2 --exclusive --requeue --signal=USR1@30 --mail-type=END --begin=now+1hour --wrap true
