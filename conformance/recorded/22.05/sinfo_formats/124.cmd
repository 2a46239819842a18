run
sinfo -N -O 'NodeList:10,Reason:30,User:8,TimeStamp'
