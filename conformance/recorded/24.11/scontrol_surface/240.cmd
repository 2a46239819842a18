run as=spurtest
scontrol schedloglevel 1
