file
b2-n1.txt
