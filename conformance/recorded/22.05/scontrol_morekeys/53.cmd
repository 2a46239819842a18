run
scontrol create reservation ReservationName=c2 StartTime=now+2hours Duration=30 Users=root CoreCnt=bogus
