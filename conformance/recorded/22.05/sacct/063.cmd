run
sacct -j $A -o JobID,ArrayJobID,ArrayTaskID
