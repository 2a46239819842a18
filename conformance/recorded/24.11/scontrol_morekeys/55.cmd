run
scontrol delete ReservationName=c3
