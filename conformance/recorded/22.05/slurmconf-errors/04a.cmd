# bad-realmemory: NodeName line with RealMemory=lots
/usr/sbin/slurmctld -D
