run capture=E11
SBATCH_OUTPUT=eo2.out sbatch --parsable --hold -o cli.out --wrap true
