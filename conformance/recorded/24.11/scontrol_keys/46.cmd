run
scontrol create reservation ReservationName=k1 StartTime=now+2hours EndTime=now+3hours Users=root Nodes=node1
