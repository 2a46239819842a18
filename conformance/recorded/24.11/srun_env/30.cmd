file
b8-N2n3.txt
