run
scontrol update NodeName=node2 Features=f1
