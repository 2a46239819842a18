run
scontrol show job | grep -E '(^| )(TresPerTask)='
