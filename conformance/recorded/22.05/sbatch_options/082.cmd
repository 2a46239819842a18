run capture=X2
FOO=foo BAR=bar sbatch --parsable --export=NONE -o exp2-%j.out --wrap 'env | grep -E "^(FOO|BAR|BAZ|SLURM_EXPORT_ENV|HOME)=" | sort'
