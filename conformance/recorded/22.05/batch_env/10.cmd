run capture=E4
sbatch --parsable --array=1-2 -o envarr-%A_%a.out --wrap "env | grep -E '^(SLURM|SLURMD|ENVIRONMENT)' | sort"
