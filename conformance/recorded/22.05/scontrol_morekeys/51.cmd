run
scontrol update ReservationName=c1 CoreCnt=1
