run
scancel --sibling=spur -n nosuch
