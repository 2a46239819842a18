run
scontrol errnumstr 2017
