run
scontrol delete ReservationName=m1
