file
b4-c2.txt
