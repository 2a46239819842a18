run
scontrol update NodeName='node[3-4]' State=DOWN Reason=broken
