run
sacct -j $C,$F,$H,$X,$M -o JobID,JobName,State,ExitCode,DerivedExitCode,Elapsed,NNodes,NCPUS,NodeList,Partition
