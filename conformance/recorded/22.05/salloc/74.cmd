file
p.out
