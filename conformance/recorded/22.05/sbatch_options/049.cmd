run capture=D4
sbatch --parsable --comment=cli prec.sh
