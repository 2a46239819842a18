run
scontrol notify 999999 hello
