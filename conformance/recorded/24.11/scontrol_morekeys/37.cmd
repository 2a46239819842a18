run
scontrol update ReservationName=a1 Accounts=root,other
