mpirun -np 2 --bind-to none build/bundle-h100/bin/ppkit sem nekbone-mpi --order 7 --tol 0 --iterations 200 --repeats 5 --overlap both --scaling strong --elements 32,16,16
