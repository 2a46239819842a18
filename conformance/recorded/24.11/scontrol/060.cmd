run
scontrol show hostlist 'node[1-3],node[5-6]'
