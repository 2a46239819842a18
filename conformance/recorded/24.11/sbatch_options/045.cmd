run capture=D2
SBATCH_JOB_NAME=fromenv SBATCH_TIMELIMIT=9 sbatch --parsable prec.sh
