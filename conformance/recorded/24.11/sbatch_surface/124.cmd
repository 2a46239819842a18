run
scontrol show job $O8 | grep -E '(^| )(DelayBoot|Extra|Network|Profile)='
