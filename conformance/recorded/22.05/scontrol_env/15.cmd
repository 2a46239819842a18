run
scontrol delete ReservationName=r1
