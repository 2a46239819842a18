run
scontrol show job $O4 | grep -E '(^| )(Socks/Node|NtasksPerN:B:S:C|CoreSpec|NumCPUs)='
