run
scontrol create reservation ReservationName=k5 StartTime=now+5hours Duration=30 Users=root Nodes=node4 PartitionName=nosuch
