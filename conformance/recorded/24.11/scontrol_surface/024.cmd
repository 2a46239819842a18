run
POSIXLY_CORRECT=1 scontrol show partition -o debug
