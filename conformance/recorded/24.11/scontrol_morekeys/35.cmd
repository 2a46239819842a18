run
scontrol create reservation ReservationName=a1 StartTime=now+2hours Duration=30 Accounts=root Nodes=node1
