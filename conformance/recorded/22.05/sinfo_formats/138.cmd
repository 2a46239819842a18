run
sinfo -n 'node[3-5]'
