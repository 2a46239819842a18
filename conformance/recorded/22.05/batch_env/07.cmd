run capture=E3
sbatch --parsable -N2 -n4 -o envn2-%j.out --wrap "env | grep -E '^(SLURM|SLURMD|ENVIRONMENT)' | sort"
