run
scontrol show partition --bogus
