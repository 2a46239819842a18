run
sacct --json -j $M | python3 -c 'import json,sys; d=json.load(sys.stdin); j=d["jobs"][0]; print(sorted(j)); print(sorted(j["steps"][0]))'
