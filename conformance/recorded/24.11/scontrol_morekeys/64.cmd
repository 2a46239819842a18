run
scontrol create reservation ReservationName=s1 StartTime=now+2hours Duration=30 Users=root Nodes=node1 Flags=DAILY
