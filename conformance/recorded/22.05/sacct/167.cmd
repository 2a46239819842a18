run
SLURM_TIME_FORMAT=relative sacct -X -j $C,$H -o JobID,Submit,Start,End
