run
sinfo -h -o '%n %c %m %T %C'
