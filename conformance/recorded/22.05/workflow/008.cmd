run
squeue --me -h -o '%i|%T|%j'
