run
scontrol -o show step
