run
scontrol cancel_reboot node1
