run
scontrol create reservation ReservationName=t2 StartTime=now+2hours Duration=30 Users=root TRES+=cpu=2
