run capture=O17
sbatch --parsable --hold -F nodes.txt --wrap true
