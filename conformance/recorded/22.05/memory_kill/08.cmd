run
sed -E 's/limit \([0-9]+ > /limit (N > /' mem-$J.out | sort -u
