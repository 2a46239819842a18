run
scontrol create reservation ReservationName=p1 StartTime=now+2hours Duration=30 Users=root NodeCnt=1 TRESPerNode=cpu=1
