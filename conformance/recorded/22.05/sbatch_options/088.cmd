run capture=X4
FOO=foo BAR=bar sbatch --parsable --export=FOO,BAZ=baz -o exp4-%j.out --wrap 'env | grep -E "^(FOO|BAR|BAZ|SLURM_EXPORT_ENV|SLURM_JOB_ID)=" | sed "s/=[0-9]*$/=N/" | sort'
