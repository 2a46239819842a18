run
sacct -j $C,$H,$M -o JobID,ReqTRES%40,AllocTRES%40,ReqCPUS,AllocCPUS,ReqMem,ReqNodes,AllocNodes
