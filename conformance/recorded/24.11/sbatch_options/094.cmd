run capture=X6
FOO=foo sbatch --parsable --export=NIL -o exp6-%j.out --wrap 'env | grep -E "^(FOO|SLURM_EXPORT_ENV|PATH)=" | sort'
