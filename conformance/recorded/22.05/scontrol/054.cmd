run
scontrol show hostlist node01,node02,node03
