run
sinfo -N -O NodeList,PreemptMode
