run
squeue --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(j["job_id"], j["job_state"], j["name"], j["state_reason"], j["nodes"], j["partition"], j["user_name"]) for j in d["jobs"]])'
