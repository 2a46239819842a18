file
envarr-${E4}_2.out
