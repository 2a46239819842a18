run
scontrol show job $O2 | grep -E '(^| )(CoreSpec|NumCPUs|MinCPUsNode)='
