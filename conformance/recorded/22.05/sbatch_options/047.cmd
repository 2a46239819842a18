run capture=D3
SBATCH_JOB_NAME=fromenv SBATCH_TIMELIMIT=9 sbatch --parsable -J fromcli -t 11 prec.sh
