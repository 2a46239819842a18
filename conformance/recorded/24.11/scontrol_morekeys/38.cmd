run
scontrol update ReservationName=a1 Users=root
