run
sinfo --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted((n["nodes"]["nodes"], n["node"]["state"], n["cpus"]["allocated"], n["cpus"]["idle"]) for n in d["sinfo"]))'
