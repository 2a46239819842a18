run
scontrol show job $O3 | grep -E '(^| )(CoreSpec|ThreadSpec)='
