run
squeue --nodelist=node4
