run
scontrol create reservation ReservationName=g2 StartTime=now+2hours Duration=30 Groups=nosuchgroup Nodes=node2
