run capture=D1
sbatch --parsable prec.sh
