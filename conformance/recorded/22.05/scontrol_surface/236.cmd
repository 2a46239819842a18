run
scontrol getaddrs node1
