run
printf 'node2\nnode3\n' > nodes.txt
