run
scontrol listpids abc
