run
scontrol create reservation ReservationName=r1 StartTime=now Duration=60 Users=root Nodes=node1
