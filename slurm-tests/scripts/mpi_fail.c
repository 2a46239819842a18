/* Rank 1 fails after MPI_Init; the others wait in a barrier it never
 * reaches, so only the launcher can end them (srun --kill-on-bad-exit). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        fprintf(stderr, "rank 1 fails\n");
        exit(3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d passed the barrier\n", rank);
    MPI_Finalize();
    return 0;
}
