run
sstat -j $J.0 -o JobID,TRESUsageInTot%90
