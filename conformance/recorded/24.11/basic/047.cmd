run
sinfo -O NodeList,CPUsState,Memory,AllocMem,StateLong
