file
b7-N1.txt
