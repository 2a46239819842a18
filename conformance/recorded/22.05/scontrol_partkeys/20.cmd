run
sinfo -h -o '%P %g %h %B %r'
