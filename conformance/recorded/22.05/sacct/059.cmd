run
sacct -X -j $C,$F,$H,$X,$Y,$D -o JobID,Submit,Start,End,Eligible,Timelimit,Reason
