run
scancel $A $J1
