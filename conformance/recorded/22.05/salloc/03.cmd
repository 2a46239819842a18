run
salloc sh -c 'exit 7' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
