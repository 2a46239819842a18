run
sort labelled.txt
