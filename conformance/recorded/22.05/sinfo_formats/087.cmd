run
sinfo -N -O NodeList,features_act
