run
squeue --json -t all | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(j["job_id"], j["array_job_id"]["number"], j["array_task_id"], j["job_state"], j["exit_code"]["return_code"], j["nodes"], j["node_count"]["number"]) for j in d["jobs"]])'
