run
scontrol update ReservationName=nosuch Duration=10
