run
scontrol update JobName=renamed Comment=by-name
