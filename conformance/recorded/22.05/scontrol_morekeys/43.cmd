run
scontrol update ReservationName=g1 Groups=spurtest
