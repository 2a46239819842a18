run
sacct --parsable2 --noheader -o JobID,State,ExitCode -j $A
