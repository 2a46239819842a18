run
scontrol show job $A4 | grep -E '(^| )(Account|WCKey|QOS)='
