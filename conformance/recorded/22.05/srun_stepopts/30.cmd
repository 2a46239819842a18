run
printf 'node3\nnode1\nnode3\nnode2\n' > hosts; printf 'node2\nnode2\n' > hosts2
