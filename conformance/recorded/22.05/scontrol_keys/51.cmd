run
scontrol update ReservationName=k1 EndTime=now+4hours
