run
scontrol -o show job
