# bad-selecttype: SelectType=select/nosuch
sinfo
