run
sed -E 's/limit \([0-9]+ > /limit (N > /' step-$K.out | sort -u
