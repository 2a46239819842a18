file
sh-$D6.out
