run
scontrol create reservation ReservationName=all StartTime=now Duration=30 Users=root Nodes=ALL Flags=MAINT
