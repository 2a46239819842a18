file
envarr-${E4}_1.out
