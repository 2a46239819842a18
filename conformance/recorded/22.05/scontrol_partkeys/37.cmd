run
scontrol update PartitionName=debug RootOnly=YES ReqResv=YES GraceTime=10 DefMemPerCPU=400 MaxMemPerCPU=800
