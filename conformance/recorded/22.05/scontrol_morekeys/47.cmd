run
scontrol delete ReservationName=g1
