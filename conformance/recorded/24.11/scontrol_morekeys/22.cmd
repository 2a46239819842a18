run
scontrol update NodeName=node4 NodeHostname=nodefour
