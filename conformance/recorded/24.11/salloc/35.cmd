run compare=stdout,rc
salloc -N2 env 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2) | sort
