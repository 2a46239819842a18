run
sacct --yaml -j $F | grep -E '^(- !!map|  !!str (job_id|name|account|user|partition|cluster|group): )'
