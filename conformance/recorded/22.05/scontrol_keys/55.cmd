run
scontrol delete ReservationName=k1
