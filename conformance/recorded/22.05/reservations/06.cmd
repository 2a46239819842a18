run
scontrol -o show reservation
