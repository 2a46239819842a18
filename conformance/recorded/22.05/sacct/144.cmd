run
sacct -X --nodelist=node[1-2]
