run
scontrol create reservation ReservationName=t3 StartTime=now+2hours Duration=30 Users=root TRES=bogus=1
