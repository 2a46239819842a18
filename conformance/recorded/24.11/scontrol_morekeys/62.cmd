run
scontrol update ReservationName=d1 Skip
