run
scontrol show hostnames 'rack[1-2]-node[1-2]'
