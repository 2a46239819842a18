run
SBATCH_DEBUG=1 sbatch --hold --comment=dbg --wrap true
