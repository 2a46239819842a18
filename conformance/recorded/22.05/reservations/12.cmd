run
scontrol update ReservationName=future NodeCnt=1
