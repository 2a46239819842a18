run
scontrol create reservation ReservationName=t1 StartTime=now+2hours Duration=30 Users=root TRES=cpu=2
