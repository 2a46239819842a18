run
scontrol update ReservationName=r1 Duration=120 Users=root,spurtest
