run
scontrol create reservation ReservationName=k3 StartTime=now+2hours Duration=30 Users=root Nodes=node4 Flags=DAILY
