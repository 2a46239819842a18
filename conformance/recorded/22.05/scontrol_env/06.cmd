run
scontrol create reservation ReservationName=r1 StartTime=now+1hour Duration=60 Users=root Nodes=node2
