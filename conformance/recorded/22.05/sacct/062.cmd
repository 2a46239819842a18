run
sacct -j $C,$A -o JobIDRaw,JobID,Cluster,QOS,Restarts
