run
scontrol update ReservationName=t1 TRES=cpu=4
