run
scontrol show hostnames 'node[01-03]'
