run
sinfo -N -O NodeList,StateLong
