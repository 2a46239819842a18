run
srun -o /nonexistent/dir/x.txt echo x
