run
scontrol --sibling show partition debug
