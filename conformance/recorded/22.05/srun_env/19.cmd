file
b1-default.txt
