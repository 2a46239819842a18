run
scontrol create reservation ReservationName=bad4 StartTime=now Duration=60 Users=root
