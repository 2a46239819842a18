run
scontrol update ReservationName=d1 MaxStartDelay=1:00:00
