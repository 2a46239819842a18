run capture=X5
FOO=foo SBATCH_EXPORT=NONE sbatch --parsable -o exp5-%j.out --wrap 'env | grep -E "^(FOO|SLURM_EXPORT_ENV)=" | sort'
