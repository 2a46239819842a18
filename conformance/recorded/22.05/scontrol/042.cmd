run
scontrol show hostnames 'node[1-3,5,7-8]'
