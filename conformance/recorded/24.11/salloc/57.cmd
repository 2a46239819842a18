run capture=H
salloc --no-shell -N2 -J held 2>&1
