run
salloc sh -c 'echo out; echo err >&2' 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)
