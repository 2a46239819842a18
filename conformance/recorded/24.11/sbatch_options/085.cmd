run capture=X3
FOO=foo BAR=bar sbatch --parsable --export=ALL,BAZ=baz -o exp3-%j.out --wrap 'env | grep -E "^(FOO|BAR|BAZ|SLURM_EXPORT_ENV)=" | sort'
