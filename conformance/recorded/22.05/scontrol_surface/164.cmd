run
scontrol notify $J1 hello
