run
squeue --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["jobs"], d["errors"], d["warnings"])'
