file
b5-tpn1.txt
