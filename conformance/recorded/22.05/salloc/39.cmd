run compare=stdout,rc
salloc -n3 -c2 sh -c 'env | grep -E "^SLURM" | sort' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
