run
sinfo -N -O NodeList,SocketCoreThread
