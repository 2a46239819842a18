# no-equals: a line that is not key=value ('JustAWord')
sinfo
