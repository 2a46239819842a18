run capture=E2
SBATCH_ACCOUNT=envacct sbatch --parsable --hold -A cliacct --wrap true
