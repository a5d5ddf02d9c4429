! A Fortran host code assembling a hex8 elasticity matrix with ppkit's
! assembler handle, then checking two properties of elasticity that hold for
! any mesh: K annihilates the rigid translations (each row's x, y or z block
! sums to zero) and the load of a unit body force sums to the volume.
program fem_rigid_modes
  use, intrinsic :: iso_c_binding
  use ppkit
  implicit none
  integer, parameter :: nx = 3, ny = 2, nz = 2, nn = (nx + 1)*(ny + 1)*(nz + 1), ne = nx*ny*nz
  real(c_double), target :: xyz(3, nn)
  integer(c_int32_t), target :: conn(8, ne)
  real(c_double), allocatable, target :: values(:), load(:), ku(:)
  integer(c_int64_t), allocatable, target :: row_offsets(:)
  integer(c_int32_t), allocatable, target :: columns(:)
  type(ppkit_fem_mesh) :: mesh
  type(c_ptr) :: k, rows_ptr, cols_ptr
  integer(c_int64_t) :: nrows, nnz, r, j
  integer :: i, e, ix, iy, iz, c, d
  real(c_double) :: worst, scale, volume_load
  real(c_double), parameter :: force(3) = [0.0d0, 0.0d0, 1.0d0]

  call check(ppkit_init(), "ppkit_init")
  do iz = 0, nz
    do iy = 0, ny
      do ix = 0, nx
        i = 1 + ix + (nx + 1)*(iy + (ny + 1)*iz)
        ! A sheared box of volume nx * ny * nz.
        xyz(:, i) = [dble(ix) + 0.2d0*iz, dble(iy), dble(iz)]
      end do
    end do
  end do
  e = 0
  do iz = 0, nz - 1
    do iy = 0, ny - 1
      do ix = 0, nx - 1
        e = e + 1
        do c = 0, 7  ! Gmsh order: bottom face counter-clockwise, then the top face
          i = ix + merge(1, 0, c == 1 .or. c == 2 .or. c == 5 .or. c == 6) &
              + (nx + 1)*(iy + merge(1, 0, c == 2 .or. c == 3 .or. c == 6 .or. c == 7) &
                          + (ny + 1)*(iz + merge(1, 0, c >= 4)))
          conn(c + 1, e) = int(i, c_int32_t)
        end do
      end do
    end do
  end do
  mesh%num_nodes = nn
  mesh%coordinates = c_loc(xyz)
  mesh%num_elements = ne
  mesh%connectivity = c_loc(conn)
  call check(ppkit_fem_assembler_create(mesh, c_null_ptr, k), "ppkit_fem_assembler_create")
  call check(ppkit_fem_assembler_pattern(k, nrows, nnz, rows_ptr, cols_ptr), "pattern")
  allocate (values(nnz), load(nrows), ku(nrows), row_offsets(nrows + 1), columns(nnz))
  call check(ppkit_fem_assembler_copy_pattern(k, c_loc(row_offsets), c_loc(columns), &
                                              PPKIT_MEM_HOST), "copy_pattern")
  call check(ppkit_fem_assembler_assemble(k, 2.0d11, 0.3d0, force, c_loc(values), c_loc(load), &
                                          PPKIT_MEM_HOST, c_null_ptr), "assemble")
  ! K u for each rigid translation u = e_d.
  worst = 0
  scale = maxval(abs(values))
  do d = 0, 2
    ku = 0
    do r = 1, nrows
      do j = row_offsets(r) + 1, row_offsets(r + 1)
        if (mod(columns(j), 3) == d) ku(r) = ku(r) + values(j)
      end do
    end do
    worst = max(worst, maxval(abs(ku))/scale)
  end do
  volume_load = sum(load(3::3))
  print '(a, es9.2, a, f10.6, a, i0)', "rigid translations: max |K u| / max |K| = ", worst, &
    ", z loads sum to ", volume_load, ", volume ", nx*ny*nz
  call check(ppkit_fem_assembler_destroy(k), "destroy")
  call check(ppkit_finalize(), "ppkit_finalize")
  if (worst > 1.0d-12 .or. abs(volume_load - nx*ny*nz) > 1.0d-12*nx*ny*nz) stop 1

contains

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= 0) then
      print '(a, ": ", a)', what, ppkit_error()
      stop 2
    end if
  end subroutine

end program fem_rigid_modes
