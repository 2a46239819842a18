run
cat chain-$C1.out chain-$C2.out chain-$C3.out chain-$C4.out
