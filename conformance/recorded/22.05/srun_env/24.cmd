file
b6-cyclic.txt
