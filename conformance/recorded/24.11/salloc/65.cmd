run
salloc --immediate=1 -N1 true 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
