run
sinfo --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(n["nodes"]["nodes"], n["node"]["state"], n["cpus"]["allocated"], n["memory"]["allocated"]) for n in d["sinfo"]])'
