run
scontrol create reservation ReservationName=bad2 StartTime=now Duration=60 Users=nosuchuser Nodes=node1
