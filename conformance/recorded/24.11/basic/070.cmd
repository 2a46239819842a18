run
cat err-*
