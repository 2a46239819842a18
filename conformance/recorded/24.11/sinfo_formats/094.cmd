run
sinfo -N -O NodeList,NodeAI
