run
sinfo -o '%P|%D|%F|%A|%C|%c|%z'
