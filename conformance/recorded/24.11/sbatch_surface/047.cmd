run capture=E1
SBATCH_ACCOUNT=envacct SBATCH_WCKEY=envwk SBATCH_QOS=normal SBATCH_RESERVATION= sbatch --parsable --hold --wrap true
