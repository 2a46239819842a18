run
scontrol show hostnames 'node[1-3]'
