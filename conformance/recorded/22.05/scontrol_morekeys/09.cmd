run
scontrol update NodeName=node3 Comment= Extra= CpuBind=off Gres=
