run
scontrol update ReservationName=s1 Skip
