run
timeout 10 salloc -n9 true 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
