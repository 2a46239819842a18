run
scontrol create reservation ReservationName=k2 StartTime=now+2hours Duration=30 Users=root PartitionName=debug Nodes=node3
