run
sacct --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted(d)); print(len(d["jobs"]), d["errors"], d["warnings"])'
