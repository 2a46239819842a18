run
scontrol update ReservationName=d1 MaxStartDelay=bogus
