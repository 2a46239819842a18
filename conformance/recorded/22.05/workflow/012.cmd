run
sacct -j $W1 --parsable2 --noheader -o JobID,State,ExitCode
