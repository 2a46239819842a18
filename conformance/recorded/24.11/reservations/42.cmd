run
scontrol delete ReservationName=all
