run
scontrol delete ReservationName=future
