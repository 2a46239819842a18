run
scontrol delete ReservationName=c1
