run
sacct -D -X -j $Q -o JobID,JobName,State,ExitCode,Restarts,NodeList
