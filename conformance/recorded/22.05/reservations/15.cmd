run
scontrol create reservation ReservationName=m1 StartTime=now Duration=60 Users=root Nodes=node4 Flags=MAINT,IGNORE_JOBS
