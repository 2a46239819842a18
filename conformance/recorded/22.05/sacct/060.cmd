run
sacct -X -j $C,$H,$S -o JobID,WorkDir%30,SubmitLine%60,Comment,Priority
