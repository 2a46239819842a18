run
scontrol create reservation ReservationName=c3 StartTime=now+2hours Duration=30 Users=root CoreCnt=1,1
