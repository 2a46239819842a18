run
scontrol reboot node1
