run
scontrol delete ReservationName=k2
