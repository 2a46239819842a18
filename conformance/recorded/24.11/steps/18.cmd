run
scontrol -o show step $J.2
