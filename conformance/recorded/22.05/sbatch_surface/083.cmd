run capture=E10
SBATCH_INPUT=/dev/null SBATCH_OUTPUT=eo-%j.out SBATCH_ERROR=ee-%j.err sbatch --parsable --hold --wrap true
