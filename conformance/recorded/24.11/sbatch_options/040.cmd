run
squeue -h -j $A13,$A14,$A15,$A16 --sort=i -o '%i %l'
