run
scontrol show partition -x
