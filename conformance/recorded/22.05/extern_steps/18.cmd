run
salloc -N1 squeue -s -h -o '%i %j %N' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
