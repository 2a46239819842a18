run
scontrol update NodeName=node3 CpuBind=verbose,threads
