run
scontrol show job $O11 | grep -E '(^| )(Switches|Wait-for-Switch|Segment)='
