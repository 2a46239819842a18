file
enverr-$V2.err
