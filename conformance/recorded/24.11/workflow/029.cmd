run
scontrol -o show job 999999
