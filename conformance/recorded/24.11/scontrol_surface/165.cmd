run
scontrol notify $J2 hello
