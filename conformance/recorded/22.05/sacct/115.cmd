run
sacct -X -o JobID,State,ExitCode,DerivedExitCode
