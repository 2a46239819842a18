run
scontrol show hostlistsorted 'node[4-6],node[1-3]'
