/* Rank 1 fails after MPI_Init (exits 3, or with the argument `abort` calls
 * MPI_Abort with 7); the others wait in a barrier it never reaches, so only
 * the launcher can end them (srun --kill-on-bad-exit, or the abort). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        fprintf(stderr, "rank 1 fails\n");
        if (argc > 1 && strcmp(argv[1], "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 7);
        exit(3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d passed the barrier\n", rank);
    MPI_Finalize();
    return 0;
}
