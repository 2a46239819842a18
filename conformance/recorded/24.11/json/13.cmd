run
squeue --json -j $J2 | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(j["job_id"], j["job_state"], j["priority"], j["time_limit"]) for j in d["jobs"]])'
