run capture=E7
sbatch --parsable -n3 --mem-per-cpu=200 -o envn3-%j.out --wrap "env | grep -E '^(SLURM|SLURMD|ENVIRONMENT)' | sort"
