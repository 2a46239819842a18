run
scontrol update NodeName=node2 Comment='a comment'
