run
scontrol show hostnames 'node[3-1]'
