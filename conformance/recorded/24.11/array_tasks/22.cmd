run
scancel $A
