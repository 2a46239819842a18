run
scontrol show assoc_mgr flags=qos | head -5
