run
scontrol show partition --oneliner debug
