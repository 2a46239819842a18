run
scontrol -o show node
