run
scontrol show hostnames 'node[009-011]'
