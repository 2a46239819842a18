run capture=X1
FOO=foo BAR=bar sbatch --parsable -o exp1-%j.out --wrap 'env | grep -E "^(FOO|BAR|BAZ|SLURM_EXPORT_ENV)=" | sort'
