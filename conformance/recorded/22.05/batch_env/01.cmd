run capture=E1
sbatch --parsable -o env-%j.out --wrap "env | grep -E '^(SLURM|SLURMD|ENVIRONMENT)' | sort"
