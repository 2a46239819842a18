run
scontrol show job $P9 | grep -E '(^| )(ReqNodeList|NumNodes|MinTmpDiskNode|Priority|TimeLimit|MailType)='
