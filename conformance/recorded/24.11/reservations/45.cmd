run
scontrol create reservation ReservationName=bad3 StartTime=now Duration=60 Users=root Nodes=node9
