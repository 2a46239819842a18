run capture=E2
sbatch --parsable --exclusive -o envexcl-%j.out --wrap 'env | grep -E "^SLURM_(CPUS_ON_NODE|JOB_CPUS_PER_NODE|MEM_PER_CPU|MEM_PER_NODE)=" | sort'
