run
scontrol delete ReservationName=p1
