run
scontrol --future show node node1
