run
sacct --json | python3 -c 'import json,sys; d=json.load(sys.stdin); [print(j["job_id"], j["name"], j["state"], j["exit_code"], j["user"], j["account"], [s["step"]["name"] for s in j["steps"]]) for j in d["jobs"]]'
