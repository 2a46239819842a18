run
scontrol create reservation ReservationName=c1 StartTime=now+2hours Duration=30 Users=root CoreCnt=2
