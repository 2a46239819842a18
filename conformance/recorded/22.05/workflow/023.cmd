file
wf_a-$W1.out
