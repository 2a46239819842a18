/* A client of Slurm's own libpmi2 (Debian's libpmi2-0): each rank puts a
 * value holding ';', fences, and reads its neighbour's; the job attribute
 * PMI_process_mapping comes from the step daemon too. */
#include <slurm/pmi2.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int spawned, size, rank, appnum, len, found;
    char jobid[PMI2_MAX_VALLEN], key[64], val[PMI2_MAX_VALLEN], map[PMI2_MAX_VALLEN];
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS) {
        fprintf(stderr, "PMI2_Init failed\n");
        return 1;
    }
    if (PMI2_Job_GetId(jobid, sizeof jobid) != PMI2_SUCCESS) return 2;
    snprintf(key, sizeof key, "k%d", rank);
    snprintf(val, sizeof val, "v%d;with;semicolons", rank);
    if (PMI2_KVS_Put(key, val) != PMI2_SUCCESS) return 3;
    if (PMI2_KVS_Fence() != PMI2_SUCCESS) return 4;
    snprintf(key, sizeof key, "k%d", (rank + 1) % size);
    if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, val, sizeof val, &len) != PMI2_SUCCESS) return 5;
    if (PMI2_Info_GetJobAttr("PMI_process_mapping", map, sizeof map, &found) != PMI2_SUCCESS || !found) return 6;
    printf("rank %d of %d: %s=%s %s\n", rank, size, key, val, map);
    PMI2_Finalize();
    return 0;
}
