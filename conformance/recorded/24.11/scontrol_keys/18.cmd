run
scontrol update NodeName=node2 Comment= Extra= Features=
