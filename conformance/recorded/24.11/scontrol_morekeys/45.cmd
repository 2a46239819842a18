run
scontrol update ReservationName=g1 Users=root
