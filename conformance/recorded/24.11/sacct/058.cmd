run
sacct -j $C,$F,$H,$X,$S -o JobID,Account,User,Group,UID,GID
