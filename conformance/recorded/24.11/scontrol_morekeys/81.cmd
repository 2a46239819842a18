run
scontrol delete ReservationName=t1
