run
sinfo -o '%10P|%.5a|%-12N|%.4D|%20E|'
