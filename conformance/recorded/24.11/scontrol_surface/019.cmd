run
scontrol -o show node node1
