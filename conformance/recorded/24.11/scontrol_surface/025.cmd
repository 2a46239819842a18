run
POSIXLY_CORRECT=1 scontrol -o show partition debug
