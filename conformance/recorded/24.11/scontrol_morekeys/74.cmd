run
scontrol delete ReservationName=f1
