# bad-realmemory: NodeName line with RealMemory=lots
sinfo
