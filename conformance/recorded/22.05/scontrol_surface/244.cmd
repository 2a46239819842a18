run as=spurtest
scontrol update SuspendExcNodes=node1
