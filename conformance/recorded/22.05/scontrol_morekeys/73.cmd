run
scontrol create reservation ReservationName=f2 StartTime=now+2hours Duration=30 Users=root NodeCnt=1 Features=nosuch
