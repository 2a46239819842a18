run
scontrol listpids $J2
