run
scontrol delete ReservationName=k3
