! A Fortran host code solving a Helmholtz problem (lambda0 A + lambda1 M) u = b
! with its own conjugate gradient on arrays in ppkit's device memory: the
! operator (axhelm), the gather-scatter and the vector operations are ppkit's,
! the iteration is this program's. No array crosses to the host inside the
! loop. b is the operator applied to a known continuous field, so the solve
! must return that field.
program cg_axhelm
  use, intrinsic :: iso_c_binding
  use ppkit
  implicit none
  integer, parameter :: n_order = 4, ex = 4, ey = 3, ez = 3, nq = n_order + 1
  integer, parameter :: np = nq**3, ne = ex*ey*ez
  integer(c_long_long), parameter :: nlocal = int(ne, c_long_long)*np
  real(c_double), target :: vertices(3, 8, ne), exact(nlocal), work(nlocal)
  integer(c_long_long) :: global_ids(nlocal), nglobal, size
  real(c_double) :: nodes(nq), weights(nq), derivative(nq*nq)
  type(ppkit_sem_axhelm_mesh) :: mesh
  type(c_ptr) :: a, gs, u, b, r, p, w, mult
  integer(c_int) :: memory, kind
  integer(c_size_t) :: n, bytes
  real(c_double) :: rr, rr0, pw, alpha, beta, rr_new, err, norm
  real(c_double), parameter :: lambda0 = 1.0d0, lambda1 = 3.0d0
  integer :: e, i, j, k, c, gx, gy, gz, l, iteration
  integer :: ix, iy, iz

  call check(ppkit_init(), "ppkit_init")
  call check(ppkit_sem_gll(int(n_order, c_int), nodes, weights, derivative), "ppkit_sem_gll")

  ! A box of ex x ey x ez unit cubes, sheared in y (trilinear elements),
  ! and the global number of every local node.
  e = 0
  do iz = 0, ez - 1
    do iy = 0, ey - 1
      do ix = 0, ex - 1
        e = e + 1
        do c = 0, 7
          vertices(1, c + 1, e) = ix + iand(c, 1)
          vertices(2, c + 1, e) = iy + iand(ishft(c, -1), 1) + 0.1d0*(ix + iand(c, 1))
          vertices(3, c + 1, e) = iz + ishft(c, -2)
        end do
        do k = 1, nq
          do j = 1, nq
            do i = 1, nq
              l = (e - 1)*np + i + nq*((j - 1) + nq*(k - 1))
              gx = ix*n_order + i - 1
              gy = iy*n_order + j - 1
              gz = iz*n_order + k - 1
              global_ids(l) = gx + (ex*n_order + 1)*(gy + (ey*n_order + 1)*gz)
              ! The known field at the node (x, y, z) of the sheared cube.
              exact(l) = sin(0.7d0*(ix + 0.5d0*(1 + nodes(i)))) &
                         + 0.3d0*(iz + 0.5d0*(1 + nodes(k)))**2 &
                         + 0.1d0*(iy + 0.5d0*(1 + nodes(j)) + 0.1d0*(ix + 0.5d0*(1 + nodes(i))))
            end do
          end do
        end do
      end do
    end do
  end do
  nglobal = int(ex*n_order + 1, c_long_long)*(ey*n_order + 1)*(ez*n_order + 1)

  mesh%order = n_order
  mesh%elements = ne
  mesh%ncol = 1
  mesh%helmholtz = 1
  mesh%vertices = c_loc(vertices)
  call check(ppkit_sem_axhelm_create(mesh, a), "ppkit_sem_axhelm_create")
  call check(ppkit_sem_axhelm_size(a, size, kind), "ppkit_sem_axhelm_size")
  if (size /= nlocal) stop "unexpected operator size"
  call check(ppkit_sem_gather_scatter_create(a, global_ids, nglobal, gs), "gather_scatter_create")
  memory = merge(PPKIT_MEM_DEVICE, PPKIT_MEM_HOST, kind /= 0)
  print '(a, i0, a, i0)', "ppkit axhelm: memory kind ", kind, ", local nodes ", size

  n = int(nlocal, c_size_t)
  bytes = n*8_c_size_t
  call check(ppkit_malloc(bytes, memory, u), "ppkit_malloc")
  call check(ppkit_malloc(bytes, memory, b), "ppkit_malloc")
  call check(ppkit_malloc(bytes, memory, r), "ppkit_malloc")
  call check(ppkit_malloc(bytes, memory, p), "ppkit_malloc")
  call check(ppkit_malloc(bytes, memory, w), "ppkit_malloc")
  call check(ppkit_malloc(bytes, memory, mult), "ppkit_malloc")

  ! 1 / multiplicity, so that dot products count each global node once.
  work = 1.0d0
  call check(ppkit_memcpy(mult, memory, c_loc(work), PPKIT_MEM_HOST, bytes), "ppkit_memcpy")
  call check(ppkit_sem_dssum(gs, mult, c_null_ptr), "ppkit_sem_dssum")
  call check(ppkit_memcpy(c_loc(work), PPKIT_MEM_HOST, mult, memory, bytes), "ppkit_memcpy")
  work = 1.0d0/work
  call check(ppkit_memcpy(mult, memory, c_loc(work), PPKIT_MEM_HOST, bytes), "ppkit_memcpy")

  ! b = Q Q^T A_L u*
  call check(ppkit_memcpy(u, memory, c_loc(exact), PPKIT_MEM_HOST, bytes), "ppkit_memcpy")
  call apply(u, b)
  ! CG from u = 0: r = b, p = r.
  call check(ppkit_axpby(n, 0.0d0, b, 0.0d0, u), "ppkit_axpby")
  call check(ppkit_axpby(n, 1.0d0, b, 0.0d0, r), "ppkit_axpby")
  call check(ppkit_axpby(n, 1.0d0, r, 0.0d0, p), "ppkit_axpby")
  rr = weighted_dot(r, r)
  rr0 = rr
  iteration = 0
  do while (iteration < 1000 .and. rr > 1.0d-20*rr0)
    call apply(p, w)
    pw = weighted_dot(p, w)
    alpha = rr/pw
    call check(ppkit_axpby(n, alpha, p, 1.0d0, u), "ppkit_axpby")
    call check(ppkit_axpby(n, -alpha, w, 1.0d0, r), "ppkit_axpby")
    rr_new = weighted_dot(r, r)
    beta = rr_new/rr
    rr = rr_new
    call check(ppkit_axpby(n, 1.0d0, r, beta, p), "ppkit_axpby")
    iteration = iteration + 1
  end do
  call check(ppkit_memcpy(c_loc(work), PPKIT_MEM_HOST, u, memory, bytes), "ppkit_memcpy")
  err = sqrt(sum((work - exact)**2))
  norm = sqrt(sum(exact**2))
  print '(a, i0, a, es9.2, a, es9.2)', "CG: ", iteration, " iterations, relative residual ", &
    sqrt(rr/rr0), ", relative error ", err/norm

  call check(ppkit_free(u), "ppkit_free")
  call check(ppkit_free(b), "ppkit_free")
  call check(ppkit_free(r), "ppkit_free")
  call check(ppkit_free(p), "ppkit_free")
  call check(ppkit_free(w), "ppkit_free")
  call check(ppkit_free(mult), "ppkit_free")
  call check(ppkit_sem_gather_scatter_destroy(gs), "ppkit_sem_gather_scatter_destroy")
  call check(ppkit_sem_axhelm_destroy(a), "ppkit_sem_axhelm_destroy")
  call check(ppkit_finalize(), "ppkit_finalize")
  if (err/norm > 1.0d-8) stop 1

contains

  ! w = Q Q^T (lambda0 A_L + lambda1 M_L) v
  subroutine apply(v, out)
    type(c_ptr), value :: v, out
    call check(ppkit_sem_axhelm_apply(a, v, out, PPKIT_MEM_DEVICE, lambda0, lambda1, &
                                      c_null_ptr), "ppkit_sem_axhelm_apply")
    call check(ppkit_sem_dssum(gs, out, c_null_ptr), "ppkit_sem_dssum")
  end subroutine

  ! sum over global nodes of x y: sum over local nodes of x y / multiplicity
  real(c_double) function weighted_dot(x, y) result(s)
    type(c_ptr), value :: x, y
    s = 0
    call check(ppkit_dot(n, x, y, mult, s), "ppkit_dot")
  end function

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= 0) then
      print '(a, ": ", a)', what, ppkit_error()
      stop 2
    end if
  end subroutine

end program cg_axhelm
