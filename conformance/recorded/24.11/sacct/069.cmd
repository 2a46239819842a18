run
sacct -X -P --format=JobID,State,ExitCode -j $R
