run
scontrol update NodeName=node4 NodeAddr=127.0.0.1
