run
scontrol update NodeName=node2 Gres=gpu:1
