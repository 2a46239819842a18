run
scontrol show nodes 'node[2-3]'
