file
b3-N2n3.txt
