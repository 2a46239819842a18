run
sed 's/ AT [0-9T:-]* / AT <DATETIME> /' kill-$K.out | sort
