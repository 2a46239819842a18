run
scontrol show job $O17 | grep -E '(^| )(ReqNodeList|NumNodes)='
