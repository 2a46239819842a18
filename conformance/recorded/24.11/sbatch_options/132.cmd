run capture=E1
sbatch --parsable -N2 -n3 -c1 --mem-per-cpu=200 -J envopt -o envopt-%j.out --wrap 'env | grep -E "^SLURM_(NTASKS|NPROCS|JOB_NUM_NODES|NNODES|TASKS_PER_NODE|JOB_CPUS_PER_NODE|MEM_PER_CPU|CPUS_PER_TASK|JOB_NAME|CPUS_ON_NODE)=" | sort'
