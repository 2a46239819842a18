run
scancel --nodelist=node4 -v
