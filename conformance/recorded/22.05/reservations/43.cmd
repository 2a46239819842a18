run
scontrol create reservation ReservationName=bad1 StartTime=now Duration=bogus Users=root Nodes=node1
