run
scontrol update NodeName=node3 Gres=gpu:1
