run
SBATCH_CONSTRAINT=nosuchfeature sbatch --hold --wrap true
