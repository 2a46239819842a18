run
squeue --noheader -o '%i %t' -t all -u root
