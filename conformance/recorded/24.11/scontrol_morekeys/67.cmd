run
scontrol delete ReservationName=s1
