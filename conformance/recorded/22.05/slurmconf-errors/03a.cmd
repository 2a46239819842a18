# undefined-node: partition naming a node that no NodeName defines (Nodes=node[1-4],nosuch)
/usr/sbin/slurmctld -D
