run
sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' p.err
