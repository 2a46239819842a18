run compare=stdout,rc
salloc -N2 -n4 --ntasks-per-node=2 sh -c 'env | grep -E "^SLURM" | sort' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
