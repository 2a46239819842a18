run
sacct -X -j $C -o JobID%20,JobName%-10,State%-12,ExitCode%3
