run capture=J1
sbatch --parsable -J alpha --mem=1G --wrap 'sleep 300'
