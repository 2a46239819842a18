file
b0-shell.txt
