run
scontrol show job $E12 | grep -E '(^| )(Network|Profile|DelayBoot|Switches|Wait-for-Switch)='
