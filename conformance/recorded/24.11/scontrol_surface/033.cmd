run
scontrol version -o
