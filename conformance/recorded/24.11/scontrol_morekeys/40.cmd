run
scontrol delete ReservationName=a1
