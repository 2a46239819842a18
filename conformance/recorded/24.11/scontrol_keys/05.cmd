run
scontrol update NodeName=node2 CpuBind=cores
