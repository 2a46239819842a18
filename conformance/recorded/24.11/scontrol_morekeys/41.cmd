run
scontrol create reservation ReservationName=g1 StartTime=now+2hours Duration=30 Groups=root Nodes=node1
