! The FDTD handles from Fortran (use ppkit): a JSON case created once, fields
! written and read back through host arrays, stepped in chunks; each probe's
! last recorded value equals the field at its node read through get_field,
! and bad calls fail with a message. Exits 1 on any mismatch.
program test_fdtd_fortran
  use, intrinsic :: iso_c_binding
  use ppkit
  implicit none
  character(len=*), parameter :: json = '{"grid": {"cells": [8, 6, 5], "size": [0.008, 0.006,' // &
    ' 0.005], "courant": 0.9}, "steps": 9, "cpml": {"thickness": 1}, "sources": [{"component":' // &
    ' "ez", "node": [4, 3, 2], "waveform": "ricker", "frequency": 3e10, "amplitude": 1e-6}],' // &
    ' "probes": [{"component": "ez", "node": [5, 3, 2]}, {"component": "ex", "node": [3, 2, 3]}]}'
  integer, parameter :: nx = 8, ny = 6, nz = 5
  integer(c_long_long), parameter :: nodes = int((nx + 1)*(ny + 1)*(nz + 1), c_long_long)
  type(c_ptr) :: h
  type(ppkit_fdtd_solver_info_t) :: info
  real(c_float), target :: field(nodes), back(nodes)
  real(c_double) :: probes(18)
  integer(c_long_long) :: count
  integer :: n, chunk, failures
  integer(c_int) :: status
  character(len=64) :: variant

  failures = 0
  call check(ppkit_init(), "ppkit_init")
  call check(ppkit_fdtd_solver_create_from_json(json//c_null_char, c_null_ptr, h), "create")
  call check(ppkit_fdtd_solver_info(h, info), "info")
  variant = transfer(info%variant, variant)
  if (info%nodes /= nodes .or. info%cells(1) /= nx .or. info%pitch < nz + 1 .or. &
      info%probes /= 2 .or. info%steps_total /= 9 .or. info%precision /= PPKIT_FDTD_FP32) then
    print *, "info does not describe the case: nodes", info%nodes, "pitch", info%pitch
    failures = failures + 1
  end if

  ! A seeded pattern into Hy and back: the same values.
  do n = 1, int(nodes)
    field(n) = real(sin(0.37d0*n)*1d-3, c_float)
  end do
  call check(ppkit_fdtd_solver_set_field(h, PPKIT_FDTD_HY, c_loc(field), nodes, PPKIT_FDTD_FP32, &
                                         PPKIT_MEM_HOST, c_null_ptr), "set_field")
  call check(ppkit_fdtd_solver_get_field(h, PPKIT_FDTD_HY, c_loc(back), nodes, PPKIT_FDTD_FP32, &
                                         PPKIT_MEM_HOST, c_null_ptr), "get_field")
  if (any(back /= field)) then
    print *, "Hy read back differs from the values set"
    failures = failures + 1
  end if

  do chunk = 1, 3
    call check(ppkit_fdtd_solver_step(h, 3_c_long_long, c_null_ptr), "step")
  end do
  call check(ppkit_fdtd_solver_probe_values(h, probes, 18_c_long_long, count), "probe_values")
  call check(ppkit_fdtd_solver_get_field(h, PPKIT_FDTD_EZ, c_loc(field), nodes, PPKIT_FDTD_FP32, &
                                         PPKIT_MEM_HOST, c_null_ptr), "get_field ez")
  call check(ppkit_fdtd_solver_get_field(h, PPKIT_FDTD_EX, c_loc(back), nodes, PPKIT_FDTD_FP32, &
                                         PPKIT_MEM_HOST, c_null_ptr), "get_field ex")
  ! probe p after the last step s = 8 is values(p * 9 + 9); node (i,j,k) at (i*(ny+1)+j)*(nz+1)+k+1
  if (count /= 18 .or. real(probes(9), c_float) /= field((5*(ny + 1) + 3)*(nz + 1) + 2 + 1) .or. &
      real(probes(18), c_float) /= back((3*(ny + 1) + 2)*(nz + 1) + 3 + 1) .or. &
      maxval(abs(field)) == 0) then
    print *, "probes", probes(9), probes(18), "differ from the fields at their nodes"
    failures = failures + 1
  end if

  ! Bad calls: a message, no crash.
  ! (the status first: Fortran may evaluate both operands of .or. in any order)
  status = ppkit_fdtd_solver_get_field(h, 9_c_int, c_loc(back), nodes, PPKIT_FDTD_FP32, &
                                       PPKIT_MEM_HOST, c_null_ptr)
  if (status == 0 .or. index(ppkit_error(), "component = 9") == 0) then
    print *, "an unknown component was not refused: ", ppkit_error()
    failures = failures + 1
  end if
  call check(ppkit_fdtd_solver_destroy(h), "destroy")
  status = ppkit_fdtd_solver_step(h, 1_c_long_long, c_null_ptr)
  if (status == 0 .or. index(ppkit_error(), "destroyed") == 0) then
    print *, "a destroyed handle was not refused: ", ppkit_error()
    failures = failures + 1
  end if
  call check(ppkit_finalize(), "ppkit_finalize")
  if (failures > 0) stop 1
  print *, "fdtd handles from Fortran on ", trim(variant(1:index(variant, c_null_char) - 1)), ": ok"

contains

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= 0) then
      print *, what, " failed: ", ppkit_error()
      stop 1
    end if
  end subroutine

end program
