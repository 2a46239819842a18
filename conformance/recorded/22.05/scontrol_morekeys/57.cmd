run
scontrol create reservation ReservationName=d1 StartTime=now+2hours Duration=30 Users=root Nodes=node1 MaxStartDelay=10
