run
scontrol update ReservationName=f1 Features=
