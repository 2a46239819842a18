run
scontrol update NodeName=node3 Comment='a comment'
