run
sinfo -o '%R %s %p %I %M %h %g %S'
