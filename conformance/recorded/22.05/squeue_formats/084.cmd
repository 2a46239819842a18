run
squeue --sort=i -o 'literal %i text %% %j'
