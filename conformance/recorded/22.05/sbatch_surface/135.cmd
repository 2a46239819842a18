run
scontrol show job $O10 | grep -E '(^| )(Reboot|OOMKillStep|NumNodes)='
