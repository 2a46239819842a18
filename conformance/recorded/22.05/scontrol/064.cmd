run
scontrol show hostlistsorted b2,a1,b1,a2
