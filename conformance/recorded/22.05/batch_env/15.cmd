run capture=E5 as=spurtest
sbatch --parsable -J userjob -c 2 --mem=700 -t 10 -o envuser-%j.out --wrap "env | grep -E '^(SLURM|SLURMD|ENVIRONMENT)' | sort"
