run
scontrol update ReservationName=k1 Flags=WEEKLY
