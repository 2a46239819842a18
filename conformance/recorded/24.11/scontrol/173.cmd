run
scontrol show node node2 | grep -E '(^| )(AvailableFeatures|ActiveFeatures)='
