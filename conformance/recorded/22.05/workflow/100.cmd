run
cat arr-${R1}_0.out arr-${R1}_1.out arr-${R1}_2.out
