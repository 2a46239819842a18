run
scontrol listpids 999999
