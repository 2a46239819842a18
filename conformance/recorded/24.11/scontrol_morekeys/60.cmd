run
scontrol -o show reservation d1
