file
nf.log
