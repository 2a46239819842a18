run
printf 'oneliner\nshow partition\ndetails\nshow node node1\n' | scontrol
