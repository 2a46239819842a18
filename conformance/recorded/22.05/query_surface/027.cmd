run
squeue --sibling -h -o '%i'
