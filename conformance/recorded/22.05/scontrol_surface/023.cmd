run
scontrol show partition --one debug
