run
sinfo -O 'Partition:3,Nodes:.2'
