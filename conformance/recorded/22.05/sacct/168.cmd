run
SLURM_TIME_FORMAT=%s sacct -X -j $C,$H -o JobID,Submit,Start,End
