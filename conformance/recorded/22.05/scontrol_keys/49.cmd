run
scontrol create reservation ReservationName=k4 StartTime=now+5hours Duration=30 Users=root Nodes=node4 Flags=BOGUS
