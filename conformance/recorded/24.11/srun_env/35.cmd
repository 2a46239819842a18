file
b9-c2.txt
