run
sinfo -N -O NodeList,Reservation
