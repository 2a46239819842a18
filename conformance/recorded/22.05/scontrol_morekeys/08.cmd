run
scontrol -o show node node3
