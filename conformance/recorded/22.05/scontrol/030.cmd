run
scontrol -d show node node1
