run
scontrol create reservation ReservationName=future StartTime=now+2hours Duration=30 Users=spurtest NodeCnt=2
