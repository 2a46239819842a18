run
scontrol update NodeName=node2 Reason='r two'
