run
scontrol show hostnames 'a[1-2],b3,c'
