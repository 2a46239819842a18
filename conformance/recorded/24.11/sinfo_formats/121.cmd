run
sinfo -O Partition,Available,Time,Nodes,StateLong,NodeList
