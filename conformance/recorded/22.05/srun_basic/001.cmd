run
srun echo hello
