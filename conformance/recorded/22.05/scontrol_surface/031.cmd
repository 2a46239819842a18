run
scontrol show partition --on
