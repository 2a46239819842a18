run
scontrol create reservation ReservationName=bad5 StartTime=now Duration=60 Nodes=node1
