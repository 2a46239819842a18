run capture=H2
salloc --no-shell 2>&1
