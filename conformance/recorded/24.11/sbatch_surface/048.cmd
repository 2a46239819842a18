run
scontrol show job $E1 | grep -E '(^| )(Account|WCKey|QOS|Reservation)='
