run
scontrol delete ReservationName=d1
