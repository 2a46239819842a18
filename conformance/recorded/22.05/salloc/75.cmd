file
p.rc
