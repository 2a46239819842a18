run capture=J5
sbatch --parsable -J wide -N2 --mem=100 --wrap 'sleep 300'
