run
sacct -X -j $C,$F,$X -o JobID,Flags
