run capture=E9
SBATCH_ARRAY_INX=2-4 SBATCH_GET_USER_ENV=1 sbatch --parsable --hold --wrap true
