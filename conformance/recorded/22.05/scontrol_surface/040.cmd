run
scontrol -F show node node1
