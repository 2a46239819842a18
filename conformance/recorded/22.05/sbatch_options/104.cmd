file
sub/cd2.$C2.log
