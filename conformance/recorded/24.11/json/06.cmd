run
sinfo --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted((n["nodes"]["nodes"], n["node"]["state"], n["cpus"]["total"], n["partition"]["name"]) for n in d["sinfo"]))'
